/// The writer's entry points to the session (`SessionTable`) and the values kept between
/// launches (`SettingsTable`): each one transaction, or one read.
extension MessageStore {
  func session() throws(StoreError) -> SessionRecord? {
    try read { try SessionTable.session(db: $0) }
  }

  package func saveSession(_ session: SessionRecord) throws(StoreError) {
    try write { try SessionTable.save(session, tx: $0) }
  }

  /// A value kept between launches, nil when never saved.
  func setting(_ key: String) throws(StoreError) -> String? {
    try read { try SettingsTable.setting(key, db: $0) }
  }

  /// Saves (or, with nil, removes) a value kept between launches.
  func saveSetting(_ key: String, _ value: String?) throws(StoreError) {
    try write { try SettingsTable.save(key, value, tx: $0) }
  }

  func syncCursor() throws(StoreError) -> String? {
    try read { try SettingsTable.syncCursor(db: $0) }
  }
}
