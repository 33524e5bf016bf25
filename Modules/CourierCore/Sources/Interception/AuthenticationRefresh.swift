/// Which authenticators are refreshing in the current task: calls the
/// refresh makes pass them untouched, and their context says so
/// (``CallContext/isCredentialRefresh``). Package-level: CourierAuthentication
/// marks its refreshes here.
package enum AuthenticationRefresh {
    @TaskLocal package static var inProgress: Set<ObjectIdentifier> = []
}
