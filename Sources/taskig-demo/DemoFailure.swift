/// A section that did not behave as the demo expects; the demo reports it and exits with 1.
struct DemoFailure: Error, CustomStringConvertible {
    let description: String
}
