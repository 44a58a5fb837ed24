/// Carries a non-Sendable value (an immutable HealthKit object graph) across a task boundary.
///
/// `@unchecked`: forced by Apple's API, whose metadata (`[String: Any]`), predicates and sort descriptors are not
/// `Sendable` but cross into the completion-handler forms' tasks; the box is never mutated.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
