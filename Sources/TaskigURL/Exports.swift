// URL and URLRequest tasks are only useful with Taskig's waits (`await()`, `awaitAll`, …) and
// with Foundation's URL types, so `import TaskigURL` brings them along: on Linux, `URLSession`
// and `URLRequest` live in FoundationNetworking.
@_exported import Foundation
@_exported import Taskig

#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif
