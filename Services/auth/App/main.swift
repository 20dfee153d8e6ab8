import AuthCore
import Foundation

exit(await AuthService.main())
