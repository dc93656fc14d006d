// URL and URLRequest tasks are only useful with Taskig's waits (`await()`, `awaitAll`, …), so
// `import TaskigURL` brings them along.
@_exported import Taskig
