import Foundation
import XCTest

/// A test case whose tests wait on the main thread, where XCTest runs them, as a script does.
/// A hang there cannot be interrupted, so each test gets a watchdog that ends the run loudly
/// after 20 s instead.
class MainThreadTestCase: XCTestCase {
    private var watchdog: DispatchWorkItem?

    override func setUp() {
        let item = DispatchWorkItem { fatalError("watchdog: a main-thread wait hung for 20 s") }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: item)
        watchdog = item
    }

    override func tearDown() {
        watchdog?.cancel()
    }
}
