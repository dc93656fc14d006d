import Dispatch

/// How a lane runs one task of a collection: to completion, on the lane's own thread when
/// the task's queue allows it.
@usableFromInline
protocol LaneWork: SendableMetatype {
    associatedtype Element
    associatedtype Outcome
    @inlinable
    static func perform(_ task: Element) -> Outcome
    @inlinable
    static func cancel(_ task: Element)
}

/// Lane work for tasks that can fail; the outcome is the task's `Result`.
@usableFromInline
enum ThrowingLaneWork<Element: ThrowableTaskType>: LaneWork {
    @inlinable
    static func perform(_ task: Element) -> Result<Element.ResultType, Error> {
        if let outcome = TaskRun.outcomeComputedInPlace(of: task) { return outcome }
        let cell = TaskRun.cell(for: task)
        cell.launch(RunPlacement.forTask(task, on: task.executionQueue, release: .never))
        return BlockingWait.value(of: cell)!
    }

    @inlinable
    static func cancel(_ task: Element) {
        (task as? CancellableTaskType)?.cancel()
    }
}

/// Lane work for tasks that cannot fail; the outcome is the task's value.
@usableFromInline
enum PlainLaneWork<Element: TaskType>: LaneWork {
    @inlinable
    static func perform(_ task: Element) -> Element.ResultType {
        if let value = TaskRun.valueComputedInPlace(of: task) { return value }
        let cell = TaskRun.cell(for: task)
        cell.launch(RunPlacement.forTask(task, on: task.executionQueue, release: .never))
        return BlockingWait.value(of: cell)!
    }

    @inlinable
    static func cancel(_ task: Element) {
        (task as? CancellableTaskType)?.cancel()
    }
}
