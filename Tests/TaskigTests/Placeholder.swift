import XCTest
import Testing
import Foundation
@testable import Taskig

final class ProbeXC: XCTestCase {
    func testThread() { print("XCTest main?", Thread.isMainThread) }
}
@Test func probeST() { print("ST main?", Thread.isMainThread) }
@MainActor @Test func probeSTMain() { print("ST mainactor main?", Thread.isMainThread) }
