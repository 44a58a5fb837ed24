import Foundation

extension Date {
    /// The stored form of a date (seconds since 2001, as `timeIntervalSinceReferenceDate`): the store, the journal
    /// and the engine keep instants as this number.
    package var storeValue: Double { timeIntervalSinceReferenceDate }
    package init(storeValue: Double) { self.init(timeIntervalSinceReferenceDate: storeValue) }
}
