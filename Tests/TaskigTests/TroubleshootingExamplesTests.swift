import Taskig
import Testing

#if canImport(Combine)
    import Combine
#endif

// The Swift 6 example of the DocC article "Troubleshooting" for "'Future' is ambiguous", as
// written there. Combine exists on Apple platforms only; on Linux this file checks the
// spelling `Taskig.Future` alone.
func startReport() -> Taskig.Future<String> {
    ThrowableTask { "quarterly report" }.start()
}

#if canImport(Combine)
    func greeting() -> Combine.Future<String, Never> {
        Combine.Future { promise in promise(.success("hello")) }
    }
#endif

@Suite struct TroubleshootingExamplesTests {
    @Test func taskigsFutureSpelledWithItsModuleIsTheOneStartReturns() throws {
        let report = startReport()  // a Taskig.Future, inferred: no module to spell
        #expect(try report.await() == "quarterly report")
    }

    #if canImport(Combine)
        @Test func combinesFutureBesideTaskigsPublishesItsValue() {
            var received: [String] = []
            let subscription = greeting().sink { received.append($0) }
            subscription.cancel()
            #expect(received == ["hello"])
        }
    #endif
}
