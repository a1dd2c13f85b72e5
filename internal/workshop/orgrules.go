package workshop

// The organisation's guard rails on its users (issue 20, part 6): it
// always keeps an owner, only an owner makes, changes or removes owners,
// and nobody removes themself (they would lock themself out mid-page).

// CheckUserChange tells whether actor may give target the role (the same
// role: only developer access changes); owners is how many owners the
// organisation has now.
func CheckUserChange(actor, target User, role Role, owners int) error {
	if !role.Valid() {
		return Invalid("role", "Choose a role.")
	}
	if actor.Role != RoleOwner && (target.Role == RoleOwner || role == RoleOwner) && target.Role != role {
		return Invalid("role", "Only an owner can make a user an owner or change an owner's role.")
	}
	if target.Role == RoleOwner && role != RoleOwner && owners <= 1 {
		return Invalid("role", "%s is the organisation's only owner: make another user an owner first.", target.Email)
	}
	return nil
}

// CheckUserRemoval tells whether actor may remove target; owners is how
// many owners the organisation has now.
func CheckUserRemoval(actor, target User, owners int) error {
	switch {
	case actor.ID == target.ID:
		return Invalid("user", "You cannot remove yourself: another owner or admin can.")
	case target.Role == RoleOwner && actor.Role != RoleOwner:
		return Invalid("user", "Only an owner can remove an owner.")
	case target.Role == RoleOwner && owners <= 1:
		return Invalid("user", "%s is the organisation's only owner: make another user an owner first.", target.Email)
	}
	return nil
}

// CheckInvite tells whether actor may make an invite link for a user with
// the role: a link sets the user's password, so only an owner invites an
// owner, and a user who has a password gets none (whoever held the link
// would take the account over).
func CheckInvite(actor User, role Role, passwordSet bool) error {
	switch {
	case role == RoleOwner && actor.Role != RoleOwner:
		return Invalid("role", "Only an owner can invite an owner.")
	case passwordSet:
		return Invalid("user", "This user already has a password: they sign in with it.")
	}
	return nil
}
