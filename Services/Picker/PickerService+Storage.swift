import Foundation
import LightboxPostgres
import LightboxProtocol
import Logging

extension PickerService {
    /// The catalog's storage the configuration names: SQLite in the data directory by default, or a
    /// PostgreSQL database (its pool runs and its schema is brought up to date in `run()`).
    static func openStorage(_ configuration: Configuration, pickerFolder: URL, logger: Logger) throws -> any CatalogStorage {
        if let location = configuration.database {
            return PostgresCatalogStorage(postgres: PostgresStorage(location: location, logger: logger), logger: logger)
        }
        return try SQLiteCatalogStorage(at: pickerFolder.appendingPathComponent("catalog.sqlite"))
    }
}
