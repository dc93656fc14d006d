import Foundation
import Taskig

/// One run's share of the `Progress` a transfer was given, in bytes of the body: what the run
/// added to `totalUnitCount` and `completedUnitCount`, so that it can correct the total once
/// the body's real length is known and take everything back when it does not succeed.
///
/// The rules are the ones ``TaskigSession/data(for:progress:)`` documents. A run only adds to
/// the progress and takes back what it added, never sets it, so runs that share one progress
/// add up. Its owner calls it from one run's URLSession delegate calls, one at a time.
struct TransferProgress {
    private let progress: Progress
    /// The response's `Content-Length`; `nil` when the response has none.
    private var expectedLength: Int64?
    private var received: Int64 = 0
    private var addedTotal: Int64 = 0
    private var addedCompleted: Int64 = 0

    init(_ progress: Progress) {
        self.progress = progress
    }

    /// The response arrived: its `Content-Length` (`expectedContentLength`, negative when
    /// unknown) goes to the total. A later response of the same run replaces the earlier one.
    mutating func responseArrived(expectedLength: Int64) {
        self.expectedLength = expectedLength >= 0 ? expectedLength : nil
        received = 0
        settle(total: runningTotal, completed: 0)
    }

    /// `count` bytes of the body arrived.
    mutating func bodyArrived(_ count: Int) {
        received += Int64(count)
        settle(total: runningTotal, completed: received)
    }

    /// The run ended: a run that succeeded counts exactly the bytes it received; one that did
    /// not takes back everything it added.
    mutating func runEnded(succeeded: Bool) {
        let kept = succeeded ? received : 0
        settle(total: kept, completed: kept)
    }

    /// The run's share of the total while bytes still arrive. Without a `Content-Length` it is
    /// one above what arrived, so that a progress this run alone updates does not read as
    /// finished (which a parent progress takes as the child's work being done) before the body
    /// has ended. A body that arrives longer than its `Content-Length` (one the server
    /// compressed is counted decoded) raises the total with it.
    private var runningTotal: Int64 {
        guard let expectedLength else { return received + 1 }
        return max(expectedLength, received)
    }

    private mutating func settle(total: Int64, completed: Int64) {
        let totalChange = total - addedTotal
        let completedChange = completed - addedCompleted
        guard totalChange != 0 || completedChange != 0 else { return }
        addedTotal = total
        addedCompleted = completed
        let progress = progress
        ProgressUpdates.perform {
            // A total that grows grows first, and a count that shrinks shrinks first, so that an
            // observer never sees more completed than the total.
            if completedChange < 0 { progress.completedUnitCount += completedChange }
            if totalChange != 0 { ProgressUpdates.setTotal(progress.totalUnitCount + totalChange, of: progress) }
            if completedChange > 0 { progress.completedUnitCount += completedChange }
        }
    }
}
