module goref
go 1.26
