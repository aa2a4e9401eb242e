import Foundation

/// English number words as used in challenge texts ("twenty three", "eighty five point five").
enum NumberWords {
    static let ones = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    /// The words for 0…99, compounds as two words ("twenty three").
    static func words(_ value: Int) -> [String] {
        precondition((0...99).contains(value), "number words cover 0…99")
        if value < 20 { return [ones[value]] }
        let unit = value % 10
        return unit == 0 ? [tens[value / 10]] : [tens[value / 10], ones[unit]]
    }

    /// Words for a whole number or a number ending in .5 ("twenty three point five").
    static func words(_ value: Decimal) -> [String] {
        let doubled = NSDecimalNumber(decimal: value * 2).intValue
        let whole = doubled / 2
        return doubled % 2 == 0 ? words(whole) : words(whole) + ["point", "five"]
    }
}
