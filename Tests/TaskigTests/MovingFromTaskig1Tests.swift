import Dispatch
import Foundation
import Taskig
import Testing

/// The Swift 6 forms of the DocC article "Moving from Taskig 1.x": what a 1.x closure
/// becomes when the client moves to the Swift 6 language mode. (Its Swift 5 examples are in
/// ReadmeExamplesTests.)
@Suite struct MovingFromTaskig1Tests {
    @MainActor final class ImageScreen {
        var image: String?
        func show(_ image: String) {
            Task.async(executionQueue: .main) {
                MainActor.assumeIsolated { self.image = image }
            }
        }
    }

    /// A 1.x conformance, with `TaskResult` and a completion handler that is not `@Sendable`.
    struct Answer: ThrowableTaskType {
        var executionQueue: DispatchQueue { DispatchQueue.global() }
        func action(completion: @escaping (TaskResult<Int>) -> Void) {
            completion(.success(42))
        }
    }

    @Test @MainActor func aMainActorTypeUpdatesItselfFromATaskForMain() async {
        let screen = ImageScreen()
        screen.show("photo")
        for _ in 0..<1000 where screen.image == nil {
            try? await _Concurrency.Task.sleep(nanoseconds: 5_000_000)
        }
        #expect(screen.image == "photo")
    }

    @Test func aValueIsReturnedInsteadOfWrittenOutside() {
        let count = Task { 1 }.await()
        #expect(count == 1)
    }

    @Test func aOneXConformanceStillCompilesInSwift6Mode() throws {
        #expect(try Answer().await() == 42)
    }
}
