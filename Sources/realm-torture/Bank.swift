import RealmActors

/// An account of the several-writers mode's bank (``Bank``).
final class TortureAccount: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var balance = 0
}

/// The invariant every writer process of the several-writers mode (`--writers W`) shares: a
/// bank of ``accounts`` accounts, each created with ``initialBalance``, and every commit of every
/// writer a transfer between two of them — a read-modify-write of balances other processes
/// change too. Transfers keep the total, so the bank's total is always `accounts ×
/// initialBalance` for the accounts the file holds, and a writer that built a commit on a
/// version older than the newest (a lost update across processes) breaks it. The driver's
/// model does not follow the balances (which depend on how the writers interleaved): the
/// checker and every reader check the total instead.
enum Bank {
    static let accounts = 16
    static let initialBalance = 1_000

    /// A transfer of `amount` from account `from` to account `to`, in `realm`'s open write
    /// transaction; an account that does not exist yet is opened first with the initial
    /// balance. A transfer larger than the balance moves what there is.
    static func transfer(from: Int, to: Int, amount: Int, in realm: Realm) {
        let source = account(from, in: realm), target = account(to, in: realm)
        let moved = min(amount, source.balance)
        source.balance -= moved
        target.balance += moved
    }

    private static func account(_ id: Int, in realm: Realm) -> TortureAccount {
        realm.object(ofType: TortureAccount.self, forPrimaryKey: id)
            ?? realm.create(TortureAccount.self, value: ["id": id, "balance": initialBalance])
    }

    /// The accounts `realm` holds and their total balance.
    static func total(in realm: Realm) -> (accounts: Int, total: Int) {
        let accounts = realm.objects(TortureAccount.self)
        return (accounts.count, accounts.reduce(0) { $0 + $1.balance })
    }

    /// A failure message if the total is not the accounts' initial balances, nil if it is.
    static func violation(accounts: Int, total: Int) -> String? {
        total == accounts * initialBalance ? nil
            : "the bank's \(accounts) accounts hold \(total) in all, not \(accounts * initialBalance): a transfer was built on a version older than the newest (a lost update)"
    }
}
