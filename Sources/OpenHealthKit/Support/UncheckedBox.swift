/// Carries a non-Sendable value (an immutable HealthKit object graph) across a task boundary.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
