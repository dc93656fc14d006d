@_exported import Taskig
