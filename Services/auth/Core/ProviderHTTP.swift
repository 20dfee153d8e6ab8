import HTTPClient

/// auth's calls to identity providers (their key sets, GitHub's and Facebook's APIs): one client, answers capped at
/// 1 MB, 10 s each.
enum ProviderHTTP {
    static let client = HTTPClient(label: "auth-providers", maxResponseBytes: 1 << 20)
}
