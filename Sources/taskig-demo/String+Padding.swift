extension String {
    /// The string with spaces in front, so that it is at least `width` characters wide.
    func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
