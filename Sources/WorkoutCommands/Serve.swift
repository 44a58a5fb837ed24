import ArgumentParser
import Foundation
import OpenHealthKit
import WorkoutExport
import WorkoutWeb

extension Workout {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Browse the store's workouts in a browser until Ctrl-C.",
            discussion: """
                The list of workouts, and each workout's page: heart rate and power on its heart-rate zones, \
                cadence and speed over time (pauses shaded, laps dashed), the route as a track, what `workout show` \
                prints, and its FIT, TCX and GPX files. HOST is 127.0.0.1 unless given; on another address every \
                request needs the token the printed URL carries. Nothing is changed in the store.

                Examples:
                  workout serve 8080
                  workout serve 0.0.0.0:8080  from the network, with the printed token
                """
        )

        @OptionGroup var options: StoreOptions
        @Argument(help: ArgumentHelp("Where to listen.", valueName: "[HOST:]PORT")) var address: String
        @OptionGroup var heartRateZones: HeartRateZoneOptions

        func validate() throws {
            _ = try serveAddress()
        }

        private func serveAddress() throws -> ServeAddress {
            do { return try ServeAddress(parsing: address) } catch let error as WebError {
                throw ValidationError(error.message)
            }
        }

        func run() async throws {
            CommandLog.bootstrap(verbose: false)
            try await reportingErrors {
                let store = try await options.open()
                try await store.requestAuthorization(toShare: [], read: WorkoutExportData.readTypes)
                let zones = try await heartRateZones.resolve(store: store)
                let address = try serveAddress()
                let server = StoreServer(address: address, site: StorePagesSource(store: store, zones: zones).site)
                try await server.start()
                if address.isLoopback {
                    print("The store's workouts at \(server.url) (Ctrl-C stops).")
                } else {
                    print(
                        "The store's workouts at \(server.url) (give this URL only to whom may look: the token is needed; Ctrl-C stops)."
                    )
                    printQRCode(server.url)
                }
                fflush(nil)
                await interrupted()
                await server.stop()
            }
        }
    }
}

/// What `workout serve`'s pages show, from the store: the list as `workout list` words it, a workout's page from
/// the same figures `workout show` and `workout export` use.
struct StorePagesSource: Sendable {
    let store: HKHealthStore
    let zones: HeartRateZones

    var site: StoreSite {
        StoreSite(
            list: { try await list() }, workout: { try await page($0) },
            download: { try await download($0, format: $1) })
    }

    func list() async throws -> [StoreListRow] {
        let workouts = try await HKSampleQueryDescriptor(
            predicates: [.workout()], sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)]
        ).result(for: store)
        return workouts.map { workout in
            StoreListRow(
                id: workout.uuid, start: Format.date(workout.startDate), activity: workout.workoutActivityType.name,
                duration: Format.duration(workout.duration), distance: Format.distance(workout))
        }
    }

    func workout(_ id: UUID) async throws -> HKWorkout? {
        try await HKSampleQueryDescriptor(
            predicates: [.workout(HKQuery.predicateForObject(with: id))], sortDescriptors: []
        ).result(for: store).first
    }

    func page(_ id: UUID) async throws -> StoreWorkoutPage? {
        guard let workout = try await workout(id) else { return nil }
        let start = workout.startDate
        func seconds(_ date: Date) -> Double { date.timeIntervalSince(start) }
        func series(
            _ identifier: HKQuantityTypeIdentifier, _ name: String, unit: HKUnit, label: String, colour: String
        )
            async throws -> StoreSeries
        {
            let points = try await ChartPoint.points(identifier, unit: unit, of: workout, store: store)
            return StoreSeries(
                name: name, unit: label, colour: colour, points: points.map { (seconds($0.start), $0.value) },
                hold: ReadingHold.hold(for: HKQuantityType(identifier)))
        }
        let speed = HKUnit.meterUnit(with: .kilo).unitDivided(by: .hour())
        let perMinute = HKUnit.count().unitDivided(by: .minute())
        var figures = [
            try await series(.cyclingCadence, "Cadence", unit: perMinute, label: "rpm", colour: "#7048e8"),
            try await series(.cyclingSpeed, "Speed", unit: speed, label: "km/h", colour: "#0b7285"),
        ]
        if workout.workoutActivityType != .cycling {
            figures.append(
                try await series(.runningSpeed, "Running speed", unit: speed, label: "km/h", colour: "#0b7285"))
        }
        let data = try await WorkoutExportData.load(workout, from: store)
        let route = data.records.compactMap { record in
            record.latitude.flatMap { latitude in record.longitude.map { (latitude: latitude, longitude: $0) } }
        }
        let events = workout.workoutEvents ?? []
        let heartRate = try await ChartPoint.points(.heartRate, unit: perMinute, of: workout, store: store)
        return StoreWorkoutPage(
            id: workout.uuid,
            title:
                "\(workout.workoutActivityType.name.capitalized), \(Format.date(start)), \(Format.duration(workout.duration))",
            summary: try await workoutLines(workout.uuid, store: store),
            chart: heartRate.isEmpty
                ? nil : try await WorkoutChart.svg(of: workout, zones: zones, store: store, heartRate: heartRate),
            series: figures,
            span: workout.endDate.timeIntervalSince(start),
            pauses: WorkoutPauses.intervals(in: events, from: start, to: workout.endDate).map {
                (seconds($0.start), seconds($0.end))
            },
            laps: WorkoutLaps.intervals(of: workout).dropFirst().map { seconds($0.start) },
            route: route,
            downloads: ExportFormat.allCases.filter { $0 != .gpx || data.hasRoute }.map(\.rawValue))
    }

    func download(_ id: UUID, format name: String) async throws -> StoreDownload? {
        guard let format = ExportFormat(rawValue: name), let workout = try await workout(id) else { return nil }
        let data = try await WorkoutExportData.load(workout, from: store)
        if format == .gpx && !data.hasRoute { return nil }
        do {
            let bytes = try format.encode(data)
            let filename = ExportFile.defaultName(
                start: workout.startDate, activityType: workout.workoutActivityType, format: format)
            let type =
                switch format {
                case .fit: "application/vnd.ant.fit"
                case .tcx: "application/vnd.garmin.tcx+xml"
                case .gpx: "application/gpx+xml"
                }
            return StoreDownload(bytes: bytes, filename: filename, contentType: type)
        } catch let error as ExportError {
            throw WebError(error.description)
        }
    }
}
