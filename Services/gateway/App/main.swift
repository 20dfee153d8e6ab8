import Foundation
import GatewayCore

exit(await Gateway.main())
