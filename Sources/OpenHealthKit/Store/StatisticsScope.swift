import Foundation

/// What a statistics query reads, derived from its predicate: the date range statistics are computed over, and
/// the predicate rows are fetched with (a non-strict date range widened by the maximum hold, so that held values
/// next to the bounds are resolved exactly as in a collection interval).
struct StatisticsScope {
    var rangeStart: Double
    var rangeEnd: Double
    var fetch: NSPredicate?

    init(predicate: NSPredicate?, hold: TimeInterval) {
        rangeStart = -.infinity
        rangeEnd = .infinity
        fetch = predicate
        guard let predicate else { return }
        let node = PredicateNode(predicate)
        var range: (Date?, Date?)?
        func widen(_ node: PredicateNode) -> PredicateNode {
            if case let .sampleDates(start, end, options) = node, range == nil {
                range = (start, end)
                guard options.isEmpty else { return node }
                return .sampleDates(start: start.map { $0 - hold }, end: end.map { $0 + hold }, options: [])
            }
            return node
        }
        let widened: PredicateNode
        switch node {
        case .sampleDates: widened = widen(node)
        case .and(let nodes): widened = .and(nodes.map(widen))
        default: widened = node
        }
        if let (start, end) = range {
            rangeStart = start?.storeValue ?? -.infinity
            rangeEnd = end?.storeValue ?? .infinity
            fetch = HKQueryPredicate(widened)
        }
    }
}
