// A command-line program that puts one load shape on Taskig and reports how it held up:
// thread counts at the peak, how many tasks ran at once, how long it took. The tests in
// TaskigTests/LoadShapeTests.swift run it in a process of its own, so that nothing else
// shares Taskig's threads, and check what it prints.
//
//   taskig-load-shapes SHAPE
//
// It prints `key value` lines, and `ok` last when every result was right.
import Dispatch
import Foundation
import Synchronization
import Taskig

let shape = CommandLine.arguments.dropFirst().first ?? ""
guard let load = LoadShapes.all[shape] else {
    print("unknown shape '\(shape)'; shapes: \(LoadShapes.all.keys.sorted().joined(separator: ", "))")
    exit(2)
}
let sampler = ThreadSampler()
let start = DispatchTime.now()
let correct = load()
let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
let (total, taskig) = sampler.stop()
print("seconds \(seconds)")
print("peak-threads \(total)")
print("peak-taskig-threads \(taskig)")
print("thread-limit \(max(64, 4 * ProcessInfo.processInfo.activeProcessorCount))")
if correct { print("ok") }
