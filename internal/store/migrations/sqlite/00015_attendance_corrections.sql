-- +goose Up
-- The history of corrections made to attendance records in the
-- application: who (the user, and their email then, so the history
-- outlives the user), when (the record's updatedAt the correction gave
-- it, which is why it is unique per record), and the clock-in and
-- clock-out before and after, as the attendance table keeps them.
CREATE TABLE attendance_corrections (
    attendance_id  TEXT NOT NULL REFERENCES attendance(id),
    org_id         TEXT NOT NULL,
    user_id        TEXT NOT NULL,
    user_email     TEXT NOT NULL,
    corrected_at   INTEGER NOT NULL,
    old_clock_in   TEXT NOT NULL,
    old_clock_out  TEXT,
    new_clock_in   TEXT NOT NULL,
    new_clock_out  TEXT,
    PRIMARY KEY (attendance_id, corrected_at)
);

-- +goose Down
DROP TABLE attendance_corrections;
