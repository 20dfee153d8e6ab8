import Foundation

/// The HTML of the public pages: plain forms that work without JavaScript, every value escaped.
enum PublicPages {
    static func document(_ title: String, _ body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>body{font-family:sans-serif;max-width:32em;margin:4em auto;padding:0 1em}input{display:block;margin:.5em 0 1em;padding:.4em;width:100%}button{padding:.5em 1.5em}.error{color:#b00}</style>
        </head>
        <body>
        \(body)
        </body>
        </html>
        """
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// The static pages parse-server serves from `public_html`, by file name.
    static func named(_ name: String, query: [String: String], publicServerURL: String) -> String? {
        let username = escape(query["username"] ?? "")
        switch name {
        case "invalid_link.html":
            return document("Invalid Link", "<h1>Invalid Link</h1><p>This link is not valid, or it was already used.</p>")
        case "verify_email_success.html":
            return document("Email Verification", "<h1>Successfully verified your email!</h1>"
                + (username.isEmpty ? "" : "<p>Account: \(username)</p>"))
        case "invalid_verification_link.html":
            let appId = query["appId"] ?? ""
            let action = escape("\(publicServerURL)/apps/\(AccountMailer.encode(appId))/resend_verification_email")
            return document("Invalid Verification Link", """
                <h1>Expired verification link!</h1>
                <form method="POST" action="\(action)">
                <input type="hidden" name="username" value="\(username)">
                <button type="submit">Resend Link</button>
                </form>
                """)
        case "link_send_success.html":
            return document("Email Verification", "<h1>Successfully sent you a new verification link!</h1><p>Please check your email.</p>")
        case "link_send_fail.html":
            return document("Email Verification", "<h1>Invalid Verification Link</h1><p>No link sent. User not found or email already verified.</p>")
        case "password_reset_success.html":
            return document("Password Reset", "<h1>Successfully updated your password!</h1>"
                + (username.isEmpty ? "" : "<p>Account: \(username)</p>"))
        default:
            return nil
        }
    }

    /// parse-server's `choose_password` page as a form posting to `request_password_reset`.
    static func choosePassword(query: [String: String], publicServerURL: String) -> String {
        let appId = query["id"] ?? ""
        let action = escape("\(publicServerURL)/apps/\(AccountMailer.encode(appId))/request_password_reset")
        let error = query["error"].map { "<p class=\"error\">\(escape($0))</p>" } ?? ""
        let app = escape(query["app"] ?? "")
        return document("Password Reset", """
            <h1>\(app.isEmpty ? "" : app + ": ")Reset Your Password</h1>
            \(error)
            <form method="POST" action="\(action)">
            <input type="hidden" name="username" value="\(escape(query["username"] ?? ""))">
            <input type="hidden" name="token" value="\(escape(query["token"] ?? ""))">
            <label for="password">New Password</label>
            <input id="password" type="password" name="new_password" autocomplete="new-password" required>
            <button type="submit">Change Password</button>
            </form>
            """)
    }
}
