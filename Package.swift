// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Taskig",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Taskig", targets: ["Taskig"]),
        .library(name: "TaskigURL", targets: ["TaskigURL"]),
        .executable(name: "taskig-demo", targets: ["taskig-demo"]),
    ],
    targets: [
        .target(name: "Taskig"),
        .target(name: "TaskigURL", dependencies: ["Taskig"]),
        .executableTarget(name: "taskig-demo", dependencies: ["Taskig", "TaskigURL"]),
        .testTarget(name: "TaskigTests", dependencies: ["Taskig"]),
        // A command-line program that waits on its main thread; TaskigTests runs it.
        .executableTarget(
            name: "taskig-main-thread-script",
            dependencies: ["Taskig"],
            path: "Tests/MainThreadScript"
        ),
        // Load shapes run in a process of their own, so that thread counts and concurrency
        // peaks are Taskig's alone; TaskigTests runs it.
        .executableTarget(
            name: "taskig-load-shapes",
            dependencies: ["Taskig"],
            path: "Tests/LoadShapes"
        ),
        // Waits that cannot end, which Taskig reports; TaskigTests runs it.
        .executableTarget(
            name: "taskig-hangs",
            dependencies: ["Taskig"],
            path: "Tests/Hangs"
        ),
        .testTarget(name: "TaskigURLTests", dependencies: ["TaskigURL"]),
        // The README's examples, compiled the way most existing clients build: in Swift 5 mode.
        .testTarget(
            name: "ReadmeExamplesTests",
            dependencies: ["Taskig"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The README's TaskigURL examples, which ReadmeExamplesTests cannot build: it declares
        // the 1.x README's own URL conformance. Building this target is the check.
        .target(
            name: "ReadmeNetworkExamples",
            dependencies: ["Taskig", "TaskigURL"],
            path: "Tests/ReadmeNetworkExamples",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
