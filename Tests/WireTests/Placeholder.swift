// Wire's tests arrive with its issue.
