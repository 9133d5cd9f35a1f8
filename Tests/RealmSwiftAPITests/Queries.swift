// Reads and queries as Realm Swift's documentation writes them, import changed only.
// Sources: "CRUD - Read" and "Filter Data" (Swift SDK: NSPredicate-style strings with
// arguments, the type-safe `where` query engine, sort, distinct, aggregates), the seeds' old
// guide ("Queries", "Filtering", "Sorting", "Chaining Queries", "Auto-Updating Results") and the
// API reference (ja: objects, object(ofType:forPrimaryKey:)).
import Foundation
import RealmActors

// MARK: Find objects ("Read All Objects", "Find a Specific Object by Primary Key")

func readObjects() {
    let realm = try! Realm()
    // Access all dogs in the realm
    let dogs = realm.objects(Dog.self)
    let specificPerson = realm.object(ofType: Person.self, forPrimaryKey: 12345)
    let specificTodo = realm.object(ofType: Todo.self, forPrimaryKey: ObjectId.generate())
    print(dogs.count, dogs.isEmpty, dogs.first?.name ?? "", dogs.last?.name ?? "", dogs[0].age)
    for dog in dogs { print(dog.name) }
    print(specificPerson?.name ?? "", specificTodo?.status ?? "")
    // Access directly through a relationship
    let specificPersonDogs = specificPerson!.dogs
    let firstDog = specificPersonDogs[0]
    print("# dogs: \(specificPersonDogs.count)")
    print("First dog's name: \(firstDog.name)")
    // Access directly through an inverse relationship
    let clubs = specificPerson!.clubs
    let firstClub = clubs[0]
    print("# memberships: \(clubs.count)")
    print("First club's name: \(firstClub.name)")
}

// MARK: Filter with predicate strings ("Filter Data": Realm Query Language / NSPredicate syntax)

func filterWithPredicateStrings() {
    let realm = try! Realm()
    // Access all dogs in the realm
    let dogs = realm.objects(Dog.self)

    // Filter by age
    let puppies = dogs.filter("age < 2")

    // Filter by person
    let dogsWithoutFavoriteToy = dogs.filter("favoriteToy == nil")

    // Filter by person's name
    let dogsWhoLikeTennisBalls = dogs.filter("favoriteToy.name == 'Tennis ball'")
    print(puppies.count)
    print(dogsWithoutFavoriteToy.count)
    print(dogsWhoLikeTennisBalls.count)

    // Query by ObjectId: pass an ObjectId, not a string.
    let users = realm.objects(User.self)
    let specificUser = users.filter("id = %@", ObjectId("11223344556677889900aabb")).first
    print("\(specificUser ?? User())")

    // Predicate arguments, operators and modifiers.
    let tanDogs = realm.objects(Dog.self).filter("color = 'tan'")
    let tanDogsWithBNames = tanDogs.filter("name BEGINSWITH 'B'")
    let formatted = dogs.filter("color = %@ AND name BEGINSWITH %@", "tan", "B")
    let caseInsensitive = dogs.filter("name CONTAINS[c] %@", "rex")
    let inList = dogs.filter("age IN %@", [1, 2, 3])
    let between = dogs.filter("age BETWEEN {1, 5}")
    let like = dogs.filter("name LIKE 'R?x*'")
    let anyOwner = dogs.filter("ANY owners.name == 'Ali'")
    let byArgumentArray = dogs.filter("age > %@ AND name != %@", argumentArray: [2, "Rex"])
    print(tanDogsWithBNames.count, formatted.count, caseInsensitive.count, inList.count, between.count,
          like.count, anyOwner.count, byArgumentArray.count)

    // Aggregates and subqueries in predicates.
    let people = realm.objects(Person.self)

    // People whose dogs' average age is 5
    _ = people.filter("dogs.@avg.age == 5")

    // People with older dogs
    _ = people.filter("dogs.@min.age > 5")

    // People with younger dogs
    _ = people.filter("dogs.@max.age < 2")

    // People with many dogs
    _ = people.filter("dogs.@count > 2")

    // People whose dogs' ages combined > 10 years
    _ = people.filter("dogs.@sum.age > 10")

    // Subquery: people with at least one dog older than 5 named 'Rex'
    _ = people.filter("SUBQUERY(dogs, $dog, $dog.age > 5 AND $dog.name == 'Rex').@count > 0")

    // The first index of a matching object.
    print(dogs.index(matching: "age > 5") ?? -1)
}

// MARK: Filter with the type-safe query engine ("Filter Data: Swift Query API")

func filterWithWhere() {
    let realm = try! Realm()
    let items = realm.objects(Item.self)
    let projects = realm.objects(Project.self)
    let tasks = realm.objects(Task.self)

    // Comparison operators
    let highPriorityItems = items.where {
        $0.priority > 5
    }
    let longRunningItems = items.where {
        $0.progressMinutes >= 120
    }
    let unassignedItems = items.where {
        $0.assignee == nil
    }
    let aliOrJamieItems = items.where {
        $0.assignee.in(["Ali", "Jamie"])
    }
    let progressBetween = items.where {
        $0.progressMinutes.contains(30...60)
    }
    // Logical operators
    let aliComplete = items.where {
        ($0.assignee == "Ali") && ($0.isComplete == true)
    }
    let notComplete = items.where { !$0.isComplete }
    let eitherOne = items.where { $0.priority > 8 || $0.isComplete }
    // String operators
    let containIe = items.where {
        $0.name.contains("ie", options: .caseInsensitive)
    }
    let startWithE = projects.where {
        $0.name.starts(with: "e", options: [.caseInsensitive, .diacriticInsensitive])
    }
    let endsWithE = projects.where { $0.name.ends(with: "e") }
    let likePattern = items.where { $0.name.like("are_implement*") }
    let equalsIgnoringCase = items.where { $0.name.equals("Rex", options: .caseInsensitive) }
    // Aggregate operators through a collection
    let averageItemPriorityAbove5 = projects.where {
        $0.items.priority.avg > 5
    }
    let allItemsLowerPriority = projects.where {
        $0.items.priority.max < 5
    }
    let allItemsHighPriority = projects.where {
        $0.items.priority.min > 5
    }
    let moreThan5Items = projects.where {
        $0.items.count > 5
    }
    let longRunningProjects = projects.where {
        $0.items.progressMinutes.sum > 100
    }
    // Collection operators
    let projectsWithCompleteItems = projects.where {
        $0.items.isComplete == true
    }
    // Subqueries
    let subquery = projects.where {
        ($0.items.isComplete == false && $0.items.assignee == "Alex").count > 0
    }
    // Sets, maps, enums
    let homeTasks = tasks.where { $0.labels.contains("home") }
    let anyLabel = tasks.where { $0.labels.containsAny(in: ["home", "work"]) }
    let londonParks = realm.objects(MapDog.self).where { $0.favoriteParksByCity["London"] == "Hyde Park" }
    let anyCity = realm.objects(MapDog.self).where { $0.favoriteParksByCity.keys.contains("London") }
    let anyPark = realm.objects(MapDog.self).where { $0.favoriteParksByCity.values.contains("Hyde Park") }
    let completeTasks = realm.objects(EnumTask.self).where { $0.status == .complete }
    let mixed = realm.objects(MixedDog.self).where { $0.companion == .string("Fido") }
    // Links and embedded objects
    let tennisBalls = realm.objects(Dog.self).where { $0.favoriteToy.name == "Tennis ball" }
    let springfield = realm.objects(Contact.self).where { $0.address.city == "Springfield" }
    print(highPriorityItems.count, longRunningItems.count, unassignedItems.count, aliOrJamieItems.count,
          progressBetween.count, aliComplete.count, notComplete.count, eitherOne.count, containIe.count,
          startWithE.count, endsWithE.count, likePattern.count, equalsIgnoringCase.count,
          averageItemPriorityAbove5.count, allItemsLowerPriority.count, allItemsHighPriority.count,
          moreThan5Items.count, longRunningProjects.count, projectsWithCompleteItems.count, subquery.count,
          homeTasks.count, anyLabel.count, londonParks.count, anyCity.count, anyPark.count,
          completeTasks.count, mixed.count, tennisBalls.count, springfield.count)
    // The first index matching a type-safe query.
    print(items.index(matching: { $0.priority > 5 }) ?? -1)
}

// MARK: Sort and distinct ("Sort Query Results", "Distinct")

func sortAndDistinct() {
    let realm = try! Realm()
    // Access all dogs in the realm
    let dogs = realm.objects(Dog.self)

    let dogsSorted = dogs.sorted(byKeyPath: "name", ascending: false)

    // You can also sort on the members of linked objects. In this example,
    // we sort the dogs by their favorite toys' names.
    let dogsSortedByFavoriteToyName = dogs.sorted(byKeyPath: "favoriteToy.name")

    // Sort by several properties, and by a key path.
    let sortDescriptors = [SortDescriptor(keyPath: "age", ascending: true),
                           SortDescriptor(keyPath: "name", ascending: false)]
    let byAgeThenName = dogs.sorted(by: sortDescriptors)
    let byLiteral = dogs.sorted(by: ["age", "name"])
    let byKeyPath = dogs.sorted(by: \.age, ascending: false)
    let reversed = sortDescriptors[0].reversed()

    // Distinct values of one or more properties.
    let distinctNames = dogs.distinct(by: ["name"])
    let distinctNameAndAge = dogs.distinct(by: [\Dog.name, \Dog.age])
    print(dogsSorted.count, dogsSortedByFavoriteToyName.count, byAgeThenName.count, byLiteral.count,
          byKeyPath.count, reversed.ascending, distinctNames.count, distinctNameAndAge.count)

    // Sorting a relationship's objects.
    let person = realm.objects(Person.self).first!
    print(person.dogs.sorted(byKeyPath: "age").count, person.clubs.sorted(byKeyPath: "name").count)
}

// MARK: Aggregates ("Aggregate Data")

func aggregates() {
    let realm = try! Realm()
    let dogs = realm.objects(Dog.self)
    let youngest: Int? = dogs.min(ofProperty: "age")
    let oldest: Int? = dogs.max(ofProperty: "age")
    let totalAge: Int = dogs.sum(ofProperty: "age")
    let averageAge: Double? = dogs.average(ofProperty: "age")
    print(youngest ?? 0, oldest ?? 0, totalAge, averageAge ?? 0)

    // The key-path forms.
    print(dogs.min(of: \.age) ?? 0, dogs.max(of: \.age) ?? 0, dogs.sum(of: \.age))
    // Aggregates of a relationship's objects.
    let person = realm.objects(Person.self).first!
    let oldestDog: Int? = person.dogs.max(ofProperty: "age")
    print(oldestDog ?? 0, person.dogs.sum(of: \.age))
}

// MARK: Chaining queries and live results (the old guide's "Chaining Queries", "Auto-Updating Results")

func chainingAndLiveResults() {
    let realm = try! Realm()
    let puppies = realm.objects(Dog.self).filter("age < 2")
    print(puppies.count) // => 0 because no dogs have been added to the Realm yet

    try! realm.write {
        realm.create(Dog.self, value: ["name": "Fido", "age": 1])
    }

    // Queries are updated in realtime
    print(puppies.count) // => 1

    let tanDogs = realm.objects(Dog.self).filter("color = 'tan'")
    let tanDogsWithBNames = tanDogs.filter("name BEGINSWITH 'B'")
    // Limit the results by reading only the first few (Realm's results are lazy).
    for dog in tanDogsWithBNames.prefix(5) { print(dog.name) }
}

// MARK: Key-value coding on objects and results ("Key-value Coding")

func keyValueCoding() {
    let realm = try! Realm()
    let dog = realm.objects(Dog.self).first!
    let name = dog.value(forKey: "name") as? String
    let names = realm.objects(Dog.self).value(forKey: "name") as? [String]
    let subscripted = dog["age"] as? Int
    print(name ?? "", names ?? [], subscripted ?? 0, dog.objectSchema.className,
          Dog.className(), dog.isSameObject(as: realm.objects(Dog.self).first))
}
