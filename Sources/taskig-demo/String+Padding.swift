extension String {
    /// The string with spaces in front, so that it is at least `width` characters wide.
    func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }

    /// The string with spaces after it, so that it is at least `width` characters wide.
    func rightPadded(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}
