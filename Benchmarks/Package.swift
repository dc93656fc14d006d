// swift-tools-version: 6.1
import PackageDescription

// Taskig's benchmarks: a package of their own, so that the library itself keeps no
// dependencies. Two executables measure the same rows (see README.md):
//
// - `TaskigBenchmarks`, run by `swift package benchmark` (ordo-one/benchmark): each row's
//   Taskig variant and its baseline as neighbouring benchmarks, with the harness's
//   wall-clock, malloc and thread metrics.
// - `taskig-bench`, run by `swift run -c release taskig-bench`: the goal table. It times
//   every row next to its baseline in one run, samples the thread count every millisecond,
//   tracks the exact heap peak, and runs the rows that need a clean process in a child.
// SwiftPM names a path dependency after its folder, which is the checkout's name.
let taskigPackage = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "main")
let taskig = Target.Dependency.product(name: "Taskig", package: taskigPackage)
let taskigURL = Target.Dependency.product(name: "TaskigURL", package: taskigPackage)

let package = Package(
    name: "TaskigBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "TaskigBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                taskig,
                "BenchWorkloads",
            ],
            path: "Benchmarks/TaskigBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "taskig-bench",
            // TaskigURL for row 9 (loopback GETs); swift-await-script so that building
            // taskig-bench builds row 13d's baseline too.
            dependencies: [taskig, taskigURL, "HeapPeak", "BenchWorkloads", "ClientShapes", "swift-await-script"]
        ),
        // Row 13d's baseline (issue 19): a command-line program whose top-level code awaits
        // Swift tasks, as a script would; taskig-bench starts it as a child. No Taskig in it.
        .executableTarget(name: "swift-await-script"),
        // The workloads and helpers both executables run, so that they measure the same code.
        .target(name: "BenchWorkloads", dependencies: [taskig]),
        // Issue 12's shapes as a client writes them, in Swift 5 language mode, with their
        // baselines in the same mode.
        .target(name: "ClientShapes", dependencies: [taskig], swiftSettings: [.swiftLanguageMode(.v5)]),
        // Counts the bytes malloc hands out while enabled, and their peak: linked only
        // into taskig-bench, whose malloc and free it wraps.
        .target(name: "HeapPeak"),
    ],
    swiftLanguageModes: [.v6]
)
