import Foundation

/// How much longer a hang guard (a watchdog, a wait for something to arrive) waits: under
/// ThreadSanitizer everything runs several times slower, and beside the other suites on a
/// loaded machine a loopback transfer there outlasted a 10 s watchdog. A guard only tells a
/// hang from slow progress, so it scales; what the tests assert does not.
let timingSlack: Double = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") == nil ? 1 : 10
