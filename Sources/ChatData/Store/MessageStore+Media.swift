import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation

/// The writer's entry points to media (`MediaFiles`): each runs its rule in one transaction,
/// or as one read. The sweep of the files no row names is the writer's own
/// (`MessageStore.removeUnreferencedMediaFiles`).
extension MessageStore {
  // MARK: - Uploads

  func upload(of id: MessageID, in conversation: ConversationID, sender: UserID)
    throws(StoreError) -> UploadRecord?
  {
    try read { try MediaFiles.upload(of: id, in: conversation, sender: sender, db: $0) }
  }

  func saveUploadStarted(
    _ id: MessageID, in conversation: ConversationID, sender: UserID, key: String
  ) throws(StoreError) {
    try saveUpload(.started(key: key), id, conversation, sender)
  }

  func saveUploadProgress(
    _ id: MessageID, in conversation: ConversationID, sender: UserID, sent: Int
  ) throws(StoreError) {
    try saveUpload(.progress(sent: sent), id, conversation, sender)
  }

  func saveUploadCompleted(
    _ id: MessageID, in conversation: ConversationID, sender: UserID, key: String
  ) throws(StoreError) {
    try saveUpload(.completed(key: key), id, conversation, sender)
  }

  func forgetUpload(_ id: MessageID, in conversation: ConversationID, sender: UserID)
    throws(StoreError)
  {
    try saveUpload(.forgotten, id, conversation, sender)
  }

  private func saveUpload(
    _ step: MediaFiles.UploadStep, _ id: MessageID, _ conversation: ConversationID,
    _ sender: UserID
  ) throws(StoreError) {
    try write { try MediaFiles.save(step, of: id, in: conversation, sender: sender, tx: $0) }
  }

  // MARK: - Downloads and the cache

  /// The automatic-download setting as saved (nil: never set).
  func autoDownloadSetting() throws(StoreError) -> String? {
    try setting(MediaFiles.autoDownloadKey)
  }

  func saveAutoDownloadSetting(_ value: String) throws(StoreError) {
    try saveSetting(MediaFiles.autoDownloadKey, value)
  }

  func mediaToFetch(in conversations: [ConversationID], me: UserID) throws(StoreError)
    -> [(MessageID, ConversationID)]
  {
    try read { try MediaFiles.toFetch(in: conversations, me: me, db: $0) }
  }

  func media(of id: MessageID, in conversation: ConversationID) throws(StoreError)
    -> (media: Media, file: String?, sender: UserID)?
  {
    try read { try MediaFiles.media(of: id, in: conversation, db: $0) }
  }

  func saveMediaFile(
    _ id: MessageID, in conversation: ConversationID, sender: UserID, file: String, at now: Date
  ) throws(StoreError) {
    try write {
      try MediaFiles.saveFile(id, in: conversation, sender: sender, file: file, at: now, tx: $0)
    }
  }

  func trimMediaCache(to limit: Int, me: UserID) throws(StoreError) -> [String] {
    try write { try MediaFiles.trimCache(to: limit, me: me, tx: $0) }
  }
}
