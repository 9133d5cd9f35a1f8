// Placeholder until the crash-test harness lands (see Tests/RealmStorageTests/CrashRecoveryTests.swift).
print("realm-crash-writer")
