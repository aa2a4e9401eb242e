// The solver lives here.
