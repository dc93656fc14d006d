import Foundation
import Testing

@testable import Taskig

@Suite struct DictionaryAwaitTests {
    @Test func awaitAllKeepsTheKeys() throws {
        let tasks = ["one": ThrowableTask { 1 }, "two": ThrowableTask { 2 }, "none": ThrowableTask<Int> { 0 }]
        #expect(try tasks.awaitAll() == ["one": 1, "two": 2, "none": 0])
        let plain = ["a": Task { "A" }, "b": Task { "B" }]
        #expect(plain.awaitAll() == ["a": "A", "b": "B"])
    }

    @Test func awaitAllFailsFast() throws {
        let tasks = ["ok": ThrowableTask { 1 }, "bad": ThrowableTask<Int> { throw TestError(9) }]
        #expect(throws: TestError(9)) { try tasks.awaitAll() }
    }

    @Test func awaitAllResultsKeysEachOutcome() throws {
        let tasks = ["ok": ThrowableTask { 1 }, "bad": ThrowableTask<Int> { throw TestError(9) }]
        let results = tasks.awaitAllResults()
        #expect(try results["ok"]?.get() == 1)
        #expect(throws: TestError(9)) { try results["bad"]?.get() }
    }

    @Test func awaitFirstAndAnyReturnTheValue() throws {
        // Losers are cancelled for good, so each race gets fresh tasks.
        func racers() -> [String: ThrowableTask<Int>] {
            [
                "slow": ThrowableTask { () -> Int in
                    sleep(seconds: 1); return 1
                }, "fast": ThrowableTask { 2 },
            ]
        }
        #expect(try racers().awaitFirst() == 2)
        #expect(try racers().awaitAny() == 2)
        #expect(try racers().awaitFirstResult().get() == 2)
        #expect(["x": Task { 5 }].awaitFirst() == 5)
    }
}
