#!/usr/bin/env python3
"""Reads HealthKit's SDK headers and writes the catalogue list (HealthKitCatalog.txt).

Usage: scripts/healthkit-catalog/extract.py HEADERS_DIR [OUT]

HEADERS_DIR holds HealthKit's HKTypeIdentifiers.h, HKClinicalType.h, HKCategoryValues.h and HKMetadataEnums.h (from an SDK's
HealthKit.framework/Headers; the headers are Apple's and stay out of this repository). Every fact in the list comes
from them: each identifier's raw value (the constant's name, which is HealthKit's string), the unit and aggregation
style its header comment gives (`// kcal, Cumulative`), the category value enumeration a category type's comment
names, availability, and every NS_ENUM's cases with their raw values. The one column of ours is the storage unit,
from storage-units.txt beside this script. Then run generate.py.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_OUT = os.path.join(ROOT, "Tests/OpenHealthKitTests/Fixtures/HealthKitCatalog.txt")

KINDS = {
    "HKQuantityTypeIdentifier": "quantity",
    "HKCategoryTypeIdentifier": "category",
    "HKCharacteristicTypeIdentifier": "characteristic",
    "HKCorrelationTypeIdentifier": "correlation",
    "HKDocumentTypeIdentifier": "document",
    "HKScoredAssessmentTypeIdentifier": "scoredAssessment",
    "HKClinicalTypeIdentifier": "clinical",
    # The types declared as plain string constants (HKWorkoutTypeIdentifier, HKDataTypeIdentifierStateOfMind…).
    "NSString": "constant",
}
STYLES = {
    "Cumulative": "cumulative",
    "Discrete (Arithmetic)": "discreteArithmetic",
    "Discrete (Temporally Weighted)": "discreteTemporallyWeighted",
    "Discrete (Equivalent Continuous Level)": "discreteEquivalentContinuousLevel",
}
# Swift names the importer does not derive by lower-camel-casing (Apple's overlay keeps these upper case).
SWIFT_NAME_OVERRIDES = {
    "HKDocumentTypeIdentifierCDA": "CDA",
    "HKScoredAssessmentTypeIdentifierGAD7": "GAD7",
    "HKScoredAssessmentTypeIdentifierPHQ9": "PHQ9",
}


def lower_camel(name):
    """Swift's importer rule: lower the leading run of capitals, keeping the last one when a lower-case letter
    follows it (UVExposure -> uvExposure, VO2Max -> vo2Max, AsleepREM -> asleepREM)."""
    m = re.match(r"[A-Z]+", name)
    if not m:
        return name
    run = m.group(0)
    rest = name[len(run):]
    if len(run) > 1 and rest[:1].islower():
        return run[:-1].lower() + run[-1] + rest
    return run.lower() + rest


def availability(text):
    dep = re.search(r'API_DEPRECATED_WITH_REPLACEMENT\("(\w+)",\s*ios\(([\d.]+),\s*([\d.]+)\)', text)
    if dep:
        return f"iOS {dep.group(2)}, deprecated iOS {dep.group(3)} -> {dep.group(1)}"
    avail = re.search(r"API_AVAILABLE\(ios\(([\d.]+)\)", text)
    return f"iOS {avail.group(1)}" if avail else ""


def read(headers, name):
    with open(os.path.join(headers, name), encoding="utf-8") as f:
        return f.read()


def identifiers(text, storage):
    rows = []
    decl = re.compile(r"HK_EXTERN\s+(\w+)\s*\*?\s*const\s+(\w+)\s+(API_[A-Z_]+\(.*?\));\s*(?://\s*(.*))?$")
    for line in text.splitlines():
        m = decl.search(line)
        if not m:
            continue
        typedef, ident, avail, comment = m.group(1), m.group(2), m.group(3), (m.group(4) or "").strip()
        kind = KINDS.get(typedef)
        if kind is None:
            continue
        suffix = ident[len(typedef):]
        swift = ident if kind == "constant" else SWIFT_NAME_OVERRIDES.get(ident, lower_camel(suffix))
        style = unit = store = values = ""
        if kind == "quantity":
            unit, _, agg = comment.partition(",")
            unit = unit.strip() or "count"  # UVExposure's comment names no unit: a count (a UV index)
            style = STYLES[agg.strip()]
            store = storage.get(suffix, unit)
        elif kind == "category":
            # A deprecated declaration carries no comment: its values are the enumeration named after it.
            values = comment or "HKCategoryValue" + suffix
        rows.append([kind, ident, swift, style, unit, store, values, availability(avail)])
    return rows


def enumerations(text):
    rows = []
    for m in re.finditer(r"typedef NS_ENUM\(NSInteger, (\w+)\) \{(.*?)\}\s*(API_[A-Z_]+\(.*?\));", text, re.S):
        name, body, avail = m.group(1), m.group(2), m.group(3)
        cases, value = [], -1
        for entry in body.split(",\n"):
            entry = entry.strip().rstrip(",").strip()
            if not entry:
                continue
            cm = re.match(r"(\w+)\s*(API_[A-Z_]+\(.*?\)\)?)?\s*(?:=\s*(\w+))?$", entry, re.S)
            objc, case_avail, assigned = cm.group(1), cm.group(2) or "", cm.group(3)
            suffix = objc[len(name):]
            if suffix[:1].isdigit():
                # The importer keeps the enumeration's last word when a case would start with a digit (version1).
                suffix = re.findall(r"[A-Z][a-z]*", name)[-1] + suffix
            case = lower_camel(suffix)
            deprecated = "DEPRECATED" in case_avail
            if assigned is not None and not assigned.lstrip("-").isdigit():
                # An alias of another case (HealthKit's deprecated spelling): Swift has it as a static.
                cases.append(f"{case}=>{lower_camel(assigned[len(name):])}")
                continue
            value = int(assigned) if assigned is not None else value + 1
            cases.append(f"{case}={value}{'!' if deprecated else ''}")
        rows.append(["enum", name, name, "", "", "", ",".join(cases), availability(avail)])
    return rows


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    headers = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else DEFAULT_OUT
    storage = {}
    with open(os.path.join(HERE, "storage-units.txt"), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                suffix, unit = line.split(None, 1)
                storage[suffix] = unit.strip()
    rows = identifiers(read(headers, "HKTypeIdentifiers.h"), storage)
    rows += identifiers(read(headers, "HKClinicalType.h"), storage)
    rows += enumerations(read(headers, "HKCategoryValues.h"))
    rows += enumerations(read(headers, "HKMetadataEnums.h"))
    with open(out, "w", encoding="utf-8") as f:
        f.write("# HealthKit's type catalogue, read from the SDK headers by scripts/healthkit-catalog/extract.py.\n")
        f.write("# Regenerate; do not edit. Then scripts/healthkit-catalog/generate.py writes the Swift.\n")
        f.write("# kind|raw value|Swift name|aggregation style|canonical unit|storage unit|values|availability\n")
        for row in rows:
            f.write("|".join(row) + "\n")
    print(f"{out}: {len(rows)} entries")


if __name__ == "__main__":
    main()
