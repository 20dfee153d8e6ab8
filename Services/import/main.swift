print("parse-import: not yet implemented")
