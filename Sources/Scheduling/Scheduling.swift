// The limiter lives here.
