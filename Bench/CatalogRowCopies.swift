import Foundation
import GRDB

/// For `bench browse --imported N`: a library of a million assets without importing a million
/// files. The first N generated photos are imported as usual; every further one is written into the
/// picker's catalog as a copy of an imported row of the same city and camera, with its own
/// identifier, content hash, file name and capture time (the photo it stands for), sharing that
/// row's original. The rows are what an import writes; only the decoding is not repeated.
enum CatalogRowCopies {
    static func add(_ range: Range<Int>, to catalog: URL, count: Int, cities: Int) throws {
        let database = try DatabaseQueue(path: catalog.path)
        try database.write { db in
            let columns = "contentHash, fileName, storedPath, type, mediaType, subtypes, pixelWidth, pixelHeight, frameCount, duration, "
                + "fileSize, creationDate, importedAt, isInCloud, properties, city, country, camera"
            // One imported row per city (photos of one city have one camera: the cameras' count divides the cities').
            var sources: [Int: Row] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT identifier, \(columns) FROM asset") {
                let name: String = row["fileName"]
                guard let number = Int(name.dropFirst(4).prefix { $0.isNumber }) else { continue }
                if sources[number % cities] == nil { sources[number % cities] = row }
            }
            guard sources.count == cities else { throw CocoaError(.fileReadCorruptFile) }
            let insert = try db.makeStatement(sql: "INSERT INTO asset (identifier, \(columns)) VALUES (?, \(Array(repeating: "?", count: 18).joined(separator: ", ")))")
            for index in range {
                let source = sources[index % cities]!
                var values: [(any DatabaseValueConvertible)?] = [String(format: "%08X-0000-4000-8000-%012X/L0/001", index, index)]
                values.append(String(format: "bench%059d", index))
                values.append("img-\(index).png")
                for column in ["storedPath", "type", "mediaType", "subtypes", "pixelWidth", "pixelHeight", "frameCount", "duration", "fileSize"] {
                    values.append(source[column] as DatabaseValue)
                }
                values.append(storedDate(BenchBrowseCommand.captureTime(of: index, count: count)))
                for column in ["importedAt", "isInCloud", "properties", "city", "country", "camera"] {
                    values.append(source[column] as DatabaseValue)
                }
                try insert.execute(arguments: StatementArguments(values))
            }
        }
    }

    /// A moment as GRDB stores dates: "yyyy-MM-dd HH:mm:ss.SSS", UTC.
    static func storedDate(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d.000", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}
