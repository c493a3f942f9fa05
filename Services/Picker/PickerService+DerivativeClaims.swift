import Logging

extension PickerService {
    /// Who makes a derivative the shared store lacks: with derived files in an object store and the
    /// catalog on PostgreSQL (other pickers may share both), a claim in the database; otherwise this
    /// picker alone.
    static func derivativeClaims(_ configuration: Configuration, storage: any CatalogStorage, logger: Logger) -> any DerivativeClaims {
        guard configuration.derivedObjectStore != nil, let shared = storage as? PostgresCatalogStorage else {
            return InProcessDerivativeClaims()
        }
        return PostgresDerivativeClaims(postgres: shared.postgres, wakeups: shared.wakeups, lease: configuration.derivativeLease,
                                        longestWait: configuration.renderTimeLimit + configuration.derivativeLease, logger: logger)
    }
}
