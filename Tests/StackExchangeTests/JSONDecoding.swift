import Foundation

/// Decodes `json` with a plain `JSONDecoder()`, as the module promises to support.
func decode<Value: Decodable>(_ type: Value.Type, from json: String) throws -> Value {
  try JSONDecoder().decode(type, from: Data(json.utf8))
}
