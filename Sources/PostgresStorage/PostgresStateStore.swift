import PostgresNIO
import Storage
