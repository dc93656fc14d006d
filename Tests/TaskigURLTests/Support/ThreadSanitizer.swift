import Foundation

/// Whether the tests run under ThreadSanitizer, which slows everything down several times over.
let underThreadSanitizer = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
