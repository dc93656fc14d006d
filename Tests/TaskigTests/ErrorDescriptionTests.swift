import Foundation
import Testing

@testable import Taskig

/// Each error Taskig throws says what happened and what to do, both as `description` (what
/// `print(error)` shows) and as `localizedDescription` (what most programs print, which
/// without `LocalizedError` is "The operation could not be completed" on Linux).
@Suite struct ErrorDescriptionTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "refused" }
    }

    @Test(arguments: [
        (TaskigError.emptySequence, "no tasks to wait for", "check isEmpty"),
        (TaskigError.timedOut, "did not finish before the timeout", "allow more time, or retry"),
        (TaskigError.awaitedFromItsOwnWork, "awaited from inside its own work", "await it from outside"),
        (TaskigError.allFailed([Refused(), Refused()]), "all 2 tasks failed; first error: refused", "catch"),
        (
            TaskigError.promiseDropped(madeAt: CallSite(fileID: "MyTool/Fetch.swift", line: 42)),
            "the promise made at MyTool/Fetch.swift:42 was released without being resolved",
            "keep the promise until you resolve or reject it"
        ),
        (
            TaskigError.callbackDropped(task: "Lookup on queue lookups"),
            "the completion handler of Lookup on queue lookups was released without being called",
            "call the completion handler exactly once on every path"
        ),
    ])
    func taskigErrorsSayWhatHappenedAndWhatToDo(error: TaskigError, happened: String, toDo: String) {
        #expect(error.description.contains(happened))
        #expect(error.description.contains(toDo))
        #expect(error.localizedDescription == error.description)
        #expect((error as Error).localizedDescription == error.description)
    }

    @Test func aCancelledRunSaysWhatHappenedAndWhatToDo() {
        let error = CancellableTaskError.taskWasCancelled
        #expect(error.description.contains("the run was cancelled before it produced a result"))
        #expect(error.description.contains("awaiting the task again makes a new run"))
        #expect((error as Error).localizedDescription == error.description)
    }

    @Test func aThrownErrorPrintsTheSameEitherWay() throws {
        let error = try #require(ThrowableTask { 1 }.timeout(-1).awaitResult().failure)
        #expect(error.localizedDescription == String(describing: error))
    }
}
