import Foundation
import Testing

@testable import TaskigURL

/// The cases of ``TransferProgress`` that the loopback server does not produce: a body longer
/// than its `Content-Length`, a second response in one run, an empty body without a length,
/// and a progress with a parent.
@Suite("TransferProgress: one run's share of a progress")
struct TransferProgressTests {
    @Test("a body longer than its Content-Length raises the total with it")
    func longerThanPromised() {
        let progress = Progress(totalUnitCount: 0)
        var run = TransferProgress(progress)
        run.responseArrived(expectedLength: 10)
        run.bodyArrived(8)
        #expect((progress.totalUnitCount, progress.completedUnitCount) == (10, 8))
        run.bodyArrived(8)
        #expect((progress.totalUnitCount, progress.completedUnitCount) == (16, 16))
        run.runEnded(succeeded: true)
        #expect((progress.totalUnitCount, progress.completedUnitCount) == (16, 16))
    }

    @Test("a second response of the same run replaces what the first one added")
    func secondResponse() {
        let progress = Progress(totalUnitCount: 0)
        var run = TransferProgress(progress)
        run.responseArrived(expectedLength: 100)
        run.bodyArrived(30)
        run.responseArrived(expectedLength: 12)
        #expect((progress.totalUnitCount, progress.completedUnitCount) == (12, 0))
        run.bodyArrived(12)
        run.runEnded(succeeded: true)
        #expect((progress.totalUnitCount, progress.completedUnitCount) == (12, 12))
    }

    @Test("an empty body without a Content-Length ends at 0 of 0, where it started")
    func emptyWithoutLength() {
        let progress = Progress(totalUnitCount: 0)
        var run = TransferProgress(progress)
        run.responseArrived(expectedLength: -1)
        #expect((progress.totalUnitCount, progress.completedUnitCount) == (1, 0))
        // Back from a positive total to zero, which swift-corelibs-foundation traps on when
        // it is set directly.
        run.runEnded(succeeded: true)
        #expect((progress.totalUnitCount, progress.completedUnitCount) == (0, 0))
    }

    @Test("without a Content-Length, a child progress is not finished, nor its parent credited, until the run ends")
    func childOfAParent() {
        let parent = Progress(totalUnitCount: 1)
        let child = Progress(totalUnitCount: 0, parent: parent, pendingUnitCount: 1)
        var run = TransferProgress(child)
        run.responseArrived(expectedLength: -1)
        run.bodyArrived(500)
        #expect(!child.isFinished)
        #expect(parent.completedUnitCount == 0)
        run.runEnded(succeeded: true)
        #expect(child.isFinished)
        #expect(parent.completedUnitCount == 1)
    }
}
