import PostsCore
import Foundation
import ServiceKit

exit(await ServiceHost.main(PostsService.definition))
