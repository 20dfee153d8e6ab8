extension CivilCalendar {
    /// `2026-11-30T14:02:51.492Z` for a time in milliseconds since 1970: the one way dates are written, by Parse
    /// dates on the wire and by the log's `time`.
    public static func timestamp(milliseconds: Int64) -> String {
        let (seconds, fraction) = floorDivide(milliseconds, 1000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = date(fromDays: days)
        var text = ""
        text.reserveCapacity(24)
        append(year, width: 4, to: &text)
        text += "-"
        append(month, width: 2, to: &text)
        text += "-"
        append(day, width: 2, to: &text)
        text += "T"
        append(secondOfDay / 3600, width: 2, to: &text)
        text += ":"
        append(secondOfDay / 60 % 60, width: 2, to: &text)
        text += ":"
        append(secondOfDay % 60, width: 2, to: &text)
        text += "."
        append(fraction, width: 3, to: &text)
        text += "Z"
        return text
    }

    /// As `printf("%0*lld")`: zeros after the sign up to `width` characters.
    private static func append(_ value: Int64, width: Int, to text: inout String) {
        let digits = String(value.magnitude)
        if value < 0 { text += "-" }
        let padding = width - digits.count - (value < 0 ? 1 : 0)
        if padding > 0 { text += String(repeating: "0", count: padding) }
        text += digits
    }
}
