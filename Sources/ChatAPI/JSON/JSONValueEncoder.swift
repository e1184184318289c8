/// Turns an `Encodable` value into `JSON`, object members in the order `encode(to:)` writes
/// them, so a shape's `CodingKeys` order is its field order on the wire.
///
/// Optionals follow `Codable`'s rule: `encodeIfPresent` (what synthesised conformances use)
/// leaves a nil field out; a shape that must write `null` says `encodeNil(forKey:)` or encodes
/// the optional with `encode(_:forKey:)`.
struct JSONValueEncoder {
  static func encode(_ value: some Encodable) throws -> JSON {
    let root = Slot()
    try value.encode(to: ValueEncoder(slot: root, codingPath: []))
    return root.json
  }
}

/// Where one encoded value goes: filled once, by a single value, or turned into an object or an
/// array that containers fill (possibly after the slot was handed out: hence a reference).
private final class Slot {
  enum Content {
    case empty
    case value(JSON)
    case object([(key: String, slot: Slot)])
    case array([Slot])
  }

  var content = Content.empty

  var json: JSON {
    switch content {
    case .empty: return .object(JSONObject())
    case .value(let json): return json
    case .object(let members):
      return .object(JSONObject(members: members.map { ($0.key, $0.slot.json) }))
    case .array(let slots): return .array(slots.map(\.json))
    }
  }

  /// A member slot, replacing an earlier member of the same key in place.
  func member(_ key: String) -> Slot {
    if case .empty = content { content = .object([]) }
    guard case .object(var members) = content else {
      preconditionFailure("a keyed container over a value that is not an object")
    }
    if let existing = members.first(where: { $0.key == key }) { return existing.slot }
    let slot = Slot()
    members.append((key, slot))
    content = .object(members)
    return slot
  }

  func appended() -> Slot {
    if case .empty = content { content = .array([]) }
    guard case .array(var slots) = content else {
      preconditionFailure("an unkeyed container over a value that is not an array")
    }
    let slot = Slot()
    slots.append(slot)
    content = .array(slots)
    return slot
  }

  var count: Int {
    if case .array(let slots) = content { return slots.count }
    return 0
  }
}

private struct ValueEncoder: Encoder {
  let slot: Slot
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    if case .empty = slot.content { slot.content = .object([]) }
    return KeyedEncodingContainer(KeyedEncoder<Key>(slot: slot, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    if case .empty = slot.content { slot.content = .array([]) }
    return UnkeyedEncoder(slot: slot, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleEncoder(slot: slot, codingPath: codingPath)
  }
}

/// The `JSON` of a primitive, or nil when `value` is not one.
private func primitive(_ value: some Encodable) -> JSON? {
  switch value {
  case let value as String: .string(value)
  case let value as Bool: .bool(value)
  case let value as Int: .integer(value)
  case let value as Int64: .integer(Int(value))
  case let value as Int32: .integer(Int(value))
  case let value as UInt64 where value <= UInt64(Int.max): .integer(Int(value))
  case let value as Double: .number(value)
  case let value as JSON: value
  default: nil
  }
}

private func encode(_ value: some Encodable, into slot: Slot, codingPath: [any CodingKey]) throws {
  if let json = primitive(value) {
    slot.content = .value(json)
  } else {
    try value.encode(to: ValueEncoder(slot: slot, codingPath: codingPath))
  }
}

private struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let slot: Slot
  let codingPath: [any CodingKey]

  mutating func encodeNil(forKey key: Key) throws {
    slot.member(key.stringValue).content = .value(.null)
  }

  mutating func encode(_ value: some Encodable, forKey key: Key) throws {
    try ChatAPI.encode(value, into: slot.member(key.stringValue), codingPath: codingPath + [key])
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let member = slot.member(key.stringValue)
    member.content = .object([])
    return KeyedEncodingContainer(
      KeyedEncoder<NestedKey>(slot: member, codingPath: codingPath + [key]))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let member = slot.member(key.stringValue)
    member.content = .array([])
    return UnkeyedEncoder(slot: member, codingPath: codingPath + [key])
  }

  mutating func superEncoder() -> any Encoder {
    ValueEncoder(slot: slot.member("super"), codingPath: codingPath)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    ValueEncoder(slot: slot.member(key.stringValue), codingPath: codingPath + [key])
  }
}

private struct UnkeyedEncoder: UnkeyedEncodingContainer {
  let slot: Slot
  let codingPath: [any CodingKey]
  var count: Int { slot.count }

  mutating func encodeNil() throws {
    slot.appended().content = .value(.null)
  }

  mutating func encode(_ value: some Encodable) throws {
    try ChatAPI.encode(value, into: slot.appended(), codingPath: codingPath)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    let element = slot.appended()
    element.content = .object([])
    return KeyedEncodingContainer(KeyedEncoder<NestedKey>(slot: element, codingPath: codingPath))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let element = slot.appended()
    element.content = .array([])
    return UnkeyedEncoder(slot: element, codingPath: codingPath)
  }

  mutating func superEncoder() -> any Encoder {
    ValueEncoder(slot: slot.appended(), codingPath: codingPath)
  }
}

private struct SingleEncoder: SingleValueEncodingContainer {
  let slot: Slot
  let codingPath: [any CodingKey]

  mutating func encodeNil() throws {
    slot.content = .value(.null)
  }

  mutating func encode(_ value: some Encodable) throws {
    try ChatAPI.encode(value, into: slot, codingPath: codingPath)
  }
}
