import Testing

@testable import WorkoutCommands

/// A scan that heard nothing on a machine with several adapters names them and how to scan with another, unless an
/// adapter was chosen (by `--adapter` or `$OPENHEALTHKIT_ADAPTER`) or there is only one.
@Suite struct ScanAdapterNoteTests {
    @Test func severalAdaptersAndNoneNamed() {
        #expect(
            otherAdaptersNote(named: nil, adapters: ["hci0", "hci1"], environment: [:])
                == "This machine has 2 adapters (hci0, hci1) and the scan used one; scan with another with --adapter hci1."
        )
    }

    @Test func oneAdapterOrOneChosenSaysNothingMore() {
        #expect(otherAdaptersNote(named: nil, adapters: ["hci0"], environment: [:]) == nil)
        #expect(otherAdaptersNote(named: "hci1", adapters: ["hci0", "hci1"], environment: [:]) == nil)
        #expect(
            otherAdaptersNote(named: nil, adapters: ["hci0", "hci1"], environment: ["OPENHEALTHKIT_ADAPTER": "hci0"])
                == nil)
        #expect(otherAdaptersNote(named: nil, adapters: nil, environment: [:]) == nil)
    }
}
