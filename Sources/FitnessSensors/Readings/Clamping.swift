extension Comparable {
    /// The value, or the nearer end of `range` when it lies outside: a trainer's target kept within the range it
    /// takes.
    package func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
