/// Builds an array whose elements arrive out of order, written in place, so that a
/// collection wait holds one copy of its results and not two.
@usableFromInline
enum IndexedResults {
    @usableFromInline
    enum Fill {
        /// Every element was written.
        case complete
        /// Only the elements at these indices were written.
        case incomplete(written: InitializedIndexSet)
    }

    /// Calls `fill` with uninitialized storage for `count` elements. When it reports an
    /// incomplete fill, the elements it wrote are destroyed and the result is `nil`.
    @inlinable
    static func build<Element>(
        count: Int,
        _ fill: (UnsafeMutableBufferPointer<Element>) -> Fill
    ) -> [Element]? {
        var complete = false
        let elements = [Element](unsafeUninitializedCapacity: count) { buffer, initializedCount in
            switch fill(buffer) {
            case .complete:
                complete = true
                initializedCount = count
            case .incomplete(let written):
                written.forEach { (buffer.baseAddress! + $0).deinitialize(count: 1) }
                initializedCount = 0
            }
        }
        return complete ? elements : nil
    }
}

/// Which elements of a partly written buffer hold a value: one bit per index. Left empty
/// for plain data, which needs no clean-up.
@usableFromInline
struct InitializedIndexSet {
    @usableFromInline
    var words: [UInt64]
    @usableFromInline
    let tracksIndices: Bool

    @inlinable
    init<Element>(count: Int, of _: Element.Type) {
        tracksIndices = !_isPOD(Element.self)
        words = tracksIndices ? Array(repeating: 0, count: (count + 63) / 64) : []
    }

    @inlinable
    mutating func insert(_ index: Int) {
        guard tracksIndices else { return }
        words[index / 64] |= 1 << UInt64(index % 64)
    }

    @inlinable
    func forEach(_ body: (Int) -> Void) {
        for (wordIndex, word) in words.enumerated() where word != 0 {
            for bit in 0..<64 where word & (1 << UInt64(bit)) != 0 {
                body(wordIndex * 64 + bit)
            }
        }
    }
}
