import Foundation

extension StackExchangeFixture {
  /// The invented questions, newest activity first, decoded once from `Resources/questions.json`
  /// (snake_case keys and HTML-escaped text, as the API sends them). The first five are those of
  /// the tests' sample page (`Fixtures.questionsPage` in `Tests/TestSupport`).
  ///
  /// The file is embedded in the target's code (`.embedInCode`), so no resource bundle has to be
  /// found at run time, wherever the binary is.
  static let embeddedQuestions = decodeQuestions(PackageResources.questions_json)

  /// Decodes the questions file's bytes.
  static func decodeQuestions(_ bytes: [UInt8]) -> Result<[FixtureQuestion], FixtureDataError> {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    do {
      return .success(try decoder.decode([FixtureQuestion].self, from: Data(bytes)))
    } catch {
      return .failure(FixtureDataError(file: "questions.json", reason: "\(error)"))
    }
  }
}
