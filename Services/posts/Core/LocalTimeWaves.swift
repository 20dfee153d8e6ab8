import Query

/// A push at a local time (a `push_time` without a zone) goes to each device when its own time zone reaches that
/// time: at 09:00 in Auckland, then in Paris, then in Chicago. The page statement (`PushPage`) then walks the
/// matching installations in the order they fall due, `(due, objectId)`, takes only those due by now, and keeps the
/// job open while some are due later, with `due_at` at the next one, so the sender comes back then. An installation
/// without a `timeZone`, or with one PostgreSQL does not know, is due at that time in UTC.
///
/// The walk sorts on an expression no index has, so each page reads every matching installation: a cost only
/// pushes at a local time pay, for the few pages of each zone.
enum LocalTimeWaves {
    /// When the installation `alias` is due: `localTime` (a bound parameter, an ISO time without zone) in its zone.
    static func due(localTime: String, schema: ClassSchema, alias: String) -> String {
        let zone = schema.fields["timeZone"] == nil ? "'UTC'"
            : "CASE WHEN \(alias).\"timeZone\" IN (SELECT name FROM zones) THEN \(alias).\"timeZone\" ELSE 'UTC' END"
        return "(\(localTime)::timestamp AT TIME ZONE \(zone))"
    }

    /// The job's cursor, `<due>|<objectId>` of the last device published (empty before the first page), as a row
    /// value to compare `(due, objectId)` with.
    static let cursor = """
        (COALESCE(NULLIF(split_part((SELECT cursor FROM job), '|', 1), '')::timestamptz, '-infinity'::timestamptz),
         split_part((SELECT cursor FROM job), '|', 2))
        """

    /// The job after a page: the cursor at the last device read; when none was due, `due_at` at the next device
    /// (published once no device is left).
    static let moved = """
        UPDATE push_jobs SET
            state = CASE WHEN (SELECT count(*) FROM page) = 0 AND (SELECT due FROM later) IS NULL THEN 'published'
                ELSE 'publishing' END,
            cursor = COALESCE((SELECT to_char(__due AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '|' || "objectId"
                FROM page ORDER BY __due DESC, "objectId" DESC LIMIT 1), cursor),
            due_at = CASE WHEN (SELECT count(*) FROM page) = 0 THEN COALESCE((SELECT due FROM later), due_at) ELSE due_at END,
        """
}
