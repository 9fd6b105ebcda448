package toolsdk

// RunInterruptHooks runs the OnInterrupt hooks as Main does before it exits
// on a signal.
var RunInterruptHooks = runInterruptHooks
