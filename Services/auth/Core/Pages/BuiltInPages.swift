/// The pages parse-server's `PagesRouter` serves when no `pagesPath` is set, by its file names, as templates with
/// its placeholders (`appName`, `appId`, `username`, `token`, `error`, `locale`, `publicServerUrl`). An app that
/// wants its own copies them into a folder, edits them, and sets `pagesPath`.
enum BuiltInPages {
    static func template(_ file: String) -> String? {
        switch file {
        case "password_reset.html":
            return page("Password Reset", """
                <h1>{{appName}}: Reset Your Password</h1>
                <p class="error">{{error}}</p>
                <form method="POST" action="{{publicServerUrl}}/apps/{{appId}}/request_password_reset">
                <input type="hidden" name="username" value="{{username}}">
                <input type="hidden" name="token" value="{{token}}">
                <input type="hidden" name="locale" value="{{locale}}">
                <label for="password">New password for {{username}}</label>
                <input id="password" type="password" name="new_password" autocomplete="new-password" required>
                <button type="submit">Change Password</button>
                </form>
                """)
        case "password_reset_success.html":
            return page("Password Reset", "<h1>{{appName}}</h1><p>The password of {{username}} has been changed.</p>")
        case "password_reset_link_invalid.html":
            return page("Password Reset", "<h1>{{appName}}</h1><p>This password reset link is not valid, or it was used already.</p>")
        case "email_verification_success.html":
            return page("Email Verification", "<h1>{{appName}}</h1><p>Your email address has been verified.</p>")
        case "email_verification_send_success.html":
            return page("Email Verification", "<h1>{{appName}}</h1><p>A new verification link is on its way: please check your email.</p>")
        case "email_verification_send_fail.html":
            return page("Email Verification", "<h1>{{appName}}</h1><p>No link was sent: the user was not found, or the address is verified already.</p>")
        case "email_verification_link_invalid.html":
            return page("Email Verification", "<h1>{{appName}}</h1><p>This verification link is not valid.</p>")
        case "email_verification_link_expired.html":
            return page("Email Verification", """
                <h1>{{appName}}</h1>
                <p>This verification link has expired.</p>
                <form method="POST" action="{{publicServerUrl}}/apps/{{appId}}/resend_verification_email">
                <input type="hidden" name="username" value="{{username}}">
                <input type="hidden" name="locale" value="{{locale}}">
                <button type="submit">Send a new link</button>
                </form>
                """)
        default:
            return nil
        }
    }

    private static func page(_ title: String, _ body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="{{locale}}">
        <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <style>body{font-family:sans-serif;max-width:32em;margin:4em auto;padding:0 1em}input{display:block;margin:.5em 0 1em;padding:.4em;width:100%}button{padding:.5em 1.5em}.error{color:#b00}</style>
        </head>
        <body>
        \(body)
        </body>
        </html>
        """
    }
}
