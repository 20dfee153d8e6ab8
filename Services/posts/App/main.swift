import PostsCore
import Foundation

exit(await PostsService.main())
